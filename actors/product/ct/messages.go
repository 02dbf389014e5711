package ct

// Unwatch tells the detector that a handle lost a watcher: it forgets the
// handle's memberships once no account watches it.
type Unwatch struct {
	Handle string
}

// Current asks for the convergences of an account that hold at At (epoch
// ms); the detector responds *CurrentResult.
type Current struct {
	Account string
	At      int64
}

// CurrentResult lists the convergences, largest first.
type CurrentResult struct {
	Convergences []Data
}
