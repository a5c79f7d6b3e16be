B
Softsign:0J<*tÆ>GGS¿`­Q¿š~C¿h/Ï>ã6B=756?T7ñ>ƒ7?*O?èÖ¿nó5?0S‘¾CuQ?ñ*?