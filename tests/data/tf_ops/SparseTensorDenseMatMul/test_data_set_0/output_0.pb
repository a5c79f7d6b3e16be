BSparseTensorDenseMatMul:0J'Àé@8@²£d@Ñg?¨ç
?sè	À