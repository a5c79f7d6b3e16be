B
GatherNd:0Jךרj¿’²¿תױ¿