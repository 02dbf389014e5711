package launchpadfake

import (
	"fmt"
	"math/rand/v2"
)

// RandomLaunch is a CreateEvent of a new token by user, in the later
// layout, with a name and symbol drawn from r.
func RandomLaunch(r *rand.Rand, user string, n int, unix int64) CreateEvent {
	adj := []string{"Dog", "Cat", "Moon", "Based", "Tiny", "Giga", "Frog", "Sol"}
	noun := []string{"Wif Hat", "Coin", "Rocket", "Inu", "Pepe", "Chad", "Cult", "Bonk"}
	a, b := adj[r.IntN(len(adj))], noun[r.IntN(len(noun))]
	sym := fmt.Sprintf("%c%c%d", a[0], b[0], n%100)
	mint := Address(fmt.Sprint("mint", n, r.Uint64()))
	return CreateEvent{Name: a + " " + b, Symbol: sym, URI: "https://ipfs.io/ipfs/demo" + fmt.Sprint(n), Mint: mint,
		BondingCurve: Address("curve" + mint), User: user, Creator: user, Timestamp: unix,
		VirtualTokenReserves: 1_073_000_000_000_000, VirtualSolReserves: 30_000_000_000, RealTokenReserves: 793_100_000_000_000,
		TokenTotalSupply: 1_000_000_000_000_000}
}
