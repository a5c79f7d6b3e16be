
BoutputJ(Z&:>vÌÂ<ª¾&Aî=ÊB½ÖC„>bI1¾4™D¼­*>Dá\<