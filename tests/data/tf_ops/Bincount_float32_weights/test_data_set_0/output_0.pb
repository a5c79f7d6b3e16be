B
Bincount:0JÑ:@À|á¿°“n?0ÀsÈê¿