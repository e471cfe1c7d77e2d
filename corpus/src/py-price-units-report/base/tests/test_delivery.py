from larder.delivery.rates import delivery_pence, is_remote


def test_bands_by_basket_value():
    assert delivery_pence(1000, "SW1A 1AA") == 599
    assert delivery_pence(3000, "SW1A 1AA") == 399
    assert delivery_pence(5000, "SW1A 1AA") == 199
    assert delivery_pence(6000, "SW1A 1AA") == 0


def test_remote_postcodes_pay_the_surcharge_even_when_delivery_is_free():
    assert is_remote("hs1 2ab")
    assert delivery_pence(7000, "HS1 2AB") == 350
