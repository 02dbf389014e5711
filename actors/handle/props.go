package handle

import (
	"log/slog"

	"github.com/alertd/alertd/actors/directory"
	"github.com/alertd/alertd/actors/writer"
	"github.com/asynkron/protoactor-go/actor"
)

// Deps are what handle and feed actors share.
type Deps struct {
	Dir    *directory.Directory
	Writer *writer.Writer
	Log    *slog.Logger
}

// Props returns the props of the actor that owns routing key key.
func Props(key string, d *Deps) *actor.Props {
	if IsUserKey(key) {
		return actor.PropsFromProducer(func() actor.Actor { return newUserActor(key[len(userPrefix):], d) })
	}
	if IsHandleKey(key) {
		return actor.PropsFromProducer(func() actor.Actor { return newHandleActor(key[len(handlePrefix):], d) })
	}
	return actor.PropsFromProducer(func() actor.Actor { return newFeedActor(key, d) })
}
