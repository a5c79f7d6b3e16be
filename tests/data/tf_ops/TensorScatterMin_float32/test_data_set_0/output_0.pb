BTensorScatterMin:0J0u]Ï¿
Dœ¿6W6¿Aô~?wj[¾1À=lÝ»¿«TÌ¿˜:Ä¿Uyµ¿1Xÿ>É¶¿