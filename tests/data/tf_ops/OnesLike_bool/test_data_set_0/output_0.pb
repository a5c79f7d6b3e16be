	B
OnesLike:0J