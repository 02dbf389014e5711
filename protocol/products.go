package protocol

import "strings"

// Product names a product by its key prefix (CONTRACT.md section 2).
type Product string

const (
	ProductTweetAlerts Product = "xg"
	ProductB2B         Product = "dt"
	ProductCW          Product = "cw"
	ProductCT          Product = "ct"
	ProductET          Product = "et"
	ProductTrending    Product = "trend"
	ProductPumpFun     Product = "pf"
	ProductECA         Product = "eca"
	ProductSA          Product = "sa"
)

// Products lists every product in a stable order.
var Products = []Product{ProductTweetAlerts, ProductB2B, ProductCW, ProductCT, ProductET, ProductTrending, ProductPumpFun, ProductECA, ProductSA}

// ParseProduct returns the product named p, if any.
func ParseProduct(p string) (Product, bool) {
	for _, x := range Products {
		if string(x) == p {
			return x, true
		}
	}
	return "", false
}

// KeyProduct returns the product whose prefix the key carries ("dt_..." is
// ProductB2B). ok is false when the key has no known prefix.
func KeyProduct(key string) (Product, bool) {
	i := strings.IndexByte(key, '_')
	if i <= 0 {
		return "", false
	}
	return ParseProduct(key[:i])
}
