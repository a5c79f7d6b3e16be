B
GatherV2:0J‘d§¿2ªÄ¿åðn?åðn?ur?¦ÜP=