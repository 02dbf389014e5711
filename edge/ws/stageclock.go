package ws

import "github.com/alertd/alertd/internal/stageclock"

// markFrames stamps stage s of the events among frames (a debugging build's
// stage clock; callers guard with stageclock.On, so it costs nothing else).
func markFrames(frames []outFrame, s stageclock.Stage) {
	for i := range frames {
		if frames[i].ev {
			stageclock.Mark(frames[i].at, s)
		}
	}
}
