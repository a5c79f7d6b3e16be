BinputJ0Oè İøtÒ
‡iÉ¦X<—áÍf3àlH®Ÿ]!vXZ±—d­8ßbà°™ºFi