Bcond/Merge_1:0J“†¿d
£?\’h?î?ÔEÀˆw¿