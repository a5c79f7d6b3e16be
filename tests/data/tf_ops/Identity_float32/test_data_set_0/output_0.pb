B
Identity:0J_=”¿©kŠ¿ÂÕ·?£mÔ>f[›=Ký÷?