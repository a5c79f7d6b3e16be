
Bqlinearleakyrelu_150JÀIH<

W
	6
KR0G



_L
JxC	
a		
c
W‘
	F
	RA…	>"R		

	W



vzW(Y			J
3

e

	;	

C

FMY$.L:*;
V‘Q.p$30(U	
?

H
1C
				:v‘
3$		
	
)Q


66of
		2
	
O
$‹	
&I		

Q%		K	

S 


D	
)	(H
<

##;
Œ‘
n	)o

BRKX
A
	&

w!

wId‘C‘‘L-,d	$‘QS‘L+ˆ
5
	X0'q@-	#QD"&
2*
†<$
S;&	:wv/		
qOD
			
		

3'
			

3
	
I
F)
	:
	
	

w	u
.>=Me
S


?

I_
Y%*%"

1
F*)(S\


D}U/Gm
7

	()7e
=p
	*

GZ
‘j			
	.‘?;]		a	!=,YKb‘



;	‘‘5
(

#'

lt
		b'
iT€
T9
.F*
]
2
_




"HBu#


IlA
g

D4
S‘‚wK		WH‘‘

‘S@
<S'
Q		+:h
1	/

4
<sK€yP

q
		l‘6(																																																																																																																				





























































 !!"#$%%&'()**+,-.//012344567889:;<==>?@ABBCDEFFGHIJKKLMNOPPQRSTTUVWXYYZ[\]^^_`abccdefgghijkllmnopqqrstuuvwxyzz{|}~€‚ƒƒ„…†‡ˆˆ‰Š‹Œ‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘