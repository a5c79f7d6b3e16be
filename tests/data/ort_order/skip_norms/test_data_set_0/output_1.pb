Bskip_ln_meanJ€ªµBS†àAß„Bw¢A§ZB¾àA†ÉY@\‹AşíĞA°·€AQËAİR@í
BÎúB.{JAtBÁİü?‰µ@¬7Ü?´èBèĞ/BÎgıA3"…?]ÚBÀ¤MAjÉÓ@«x÷AoÆpAE„Z?–)1Aaø„A¢5B