B	initial_hJ ÑÍÀ¾nÊœ¾)"a>“ßº<fø>	
=ŸMŠ>Sa…½