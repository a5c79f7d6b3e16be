B
Softplus:0J0˙†D@ı`ù>’¶>oi==ñ=Ha:=‡j@ŸVt=~y9@[y?	2B@ö√<