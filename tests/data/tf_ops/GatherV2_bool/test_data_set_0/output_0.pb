	B
GatherV2:0J