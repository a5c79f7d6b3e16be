Bqlinearglobalaveragepool_684Jbb.(3K€
