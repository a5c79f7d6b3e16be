BoutputJ2˜AÔÕ>
wa¿O8€ø