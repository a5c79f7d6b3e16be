BSplitV:2J3
Å?¬ç¾