BLSTMBlockCell:5J *ÿ€>PÑY?iL
¿_a> uÂ½b€<¿ì¦i¿vŠŸ>