BEuclideanNorm:0JV @¦k3@X
@X¸@~uº?>éû?