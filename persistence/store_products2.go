package persistence

// ProductStore2 holds what Trending, PumpFun, ECA and Search Alerts keep.
type ProductStore2 interface {
}
