package persistence

// ProductStore holds what Community Watch, Convergence Tracker and Engagement Tracker keep.
type ProductStore interface {
}
