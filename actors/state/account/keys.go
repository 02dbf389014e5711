package account

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"

	"github.com/alertd/alertd/protocol"
)

// KeyHash is the SHA-256 of a full API key. Keys carry 192 random bits, so a
// fast unsalted hash is enough to make a leaked table useless.
type KeyHash [sha256.Size]byte

// HashKey hashes a full key.
func HashKey(key string) KeyHash { return sha256.Sum256([]byte(key)) }

// NewKey returns a fresh key for product p: "<prefix>_" and 48 hex characters.
func NewKey(p protocol.Product) string {
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("crypto/rand failed: " + err.Error()) // the OS has no entropy: nothing safe to do
	}
	return string(p) + "_" + hex.EncodeToString(b[:])
}

// NewAccountID returns a fresh account id ("acc_" and 16 hex characters).
func NewAccountID() string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	return "acc_" + hex.EncodeToString(b[:])
}
