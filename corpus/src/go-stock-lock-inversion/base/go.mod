module example.com/stockd

go 1.22
