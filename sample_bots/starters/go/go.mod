module pinochle-starter

go 1.19
