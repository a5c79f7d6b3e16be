BStridedSlice:0J)ş¾Ãu¿ş
]?S¤¨¿H…¿RÊ­?