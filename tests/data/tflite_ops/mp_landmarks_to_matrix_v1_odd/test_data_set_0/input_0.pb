Binput_0Jx!z7CÜäC¼4½À€˜—B8sICÜ¶ÁA'C×CCeÃý@z©£BƒûÉB‹ÐAU¢C†§ÚBkÊÁÚMCÁÕ(C‘>©À•ŠC°þôB#ñ%@ƒvC_fNCœR×ÀKM“CÕ#èBv
Á§	KCòè°Bd¾