package chat

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/alertd/alertd/persistence"
	"github.com/asynkron/protoactor-go/actor"
)

// job is one call for a worker.
type job struct {
	m   *Message
	pid *actor.PID
}

// pool is the fixed set of workers that make the calls, each after a token
// of the global limiter. Its queue holds at most one job per chat (a chat
// actor has one call in flight), so it is bounded by the chats.
type pool struct {
	o       *Outbox
	workers int
	ctx     context.Context
	cancel  context.CancelFunc
	mu      sync.Mutex
	cond    *sync.Cond
	jobs    []job
	closed  bool
	wg      sync.WaitGroup
}

func newPool(o *Outbox, workers int) *pool {
	p := &pool{o: o, workers: workers}
	p.cond = sync.NewCond(&p.mu)
	p.ctx, p.cancel = context.WithCancel(context.Background())
	return p
}

func (p *pool) start() {
	for range p.workers {
		p.wg.Add(1)
		go p.run()
	}
}

func (p *pool) submit(j job) {
	p.mu.Lock()
	if !p.closed {
		p.jobs = append(p.jobs, j)
		p.cond.Signal()
	}
	p.mu.Unlock()
}

// stop abandons queued jobs, cancels calls in flight and waits.
func (p *pool) stop() {
	p.mu.Lock()
	p.closed = true
	p.jobs = nil
	p.cond.Broadcast()
	p.mu.Unlock()
	p.cancel()
	p.wg.Wait()
}

func (p *pool) run() {
	defer p.wg.Done()
	for {
		p.mu.Lock()
		for len(p.jobs) == 0 && !p.closed {
			p.cond.Wait()
		}
		if p.closed {
			p.mu.Unlock()
			return
		}
		j := p.jobs[0]
		p.jobs[0] = job{}
		p.jobs = p.jobs[1:]
		p.mu.Unlock()
		err := p.call(j.m)
		if p.ctx.Err() != nil {
			return // the outbox is stopping: the message stays stored
		}
		p.o.system.Root.Send(j.pid, &result{m: j.m, err: err})
	}
}

// call makes one message's call: the global token first, then the topic
// (created the first time, and again when it was deleted), then the send.
func (p *pool) call(m *Message) error {
	o := p.o
	if err := o.global.Wait(p.ctx); err != nil {
		return errAborted
	}
	ctx, cancel := context.WithTimeout(p.ctx, o.lim.CallTimeout)
	defer cancel()
	thread := m.Thread
	if thread == 0 && m.Topic != "" && m.Edit == 0 && m.Callback == "" {
		if c, ok := o.chats.Get(m.Chat); ok && c.Forum {
			if thread = o.topic(m.Chat, m.Topic); thread == 0 {
				title := m.TopicTitle
				if title == "" {
					title = m.Topic
				}
				t, err := o.api.CreateTopic(ctx, m.Chat, title)
				if err != nil {
					return err
				}
				sctx, scancel := storeCtx()
				err = o.store.PutChatTopic(sctx, persistence.ChatTopic{ChatID: m.Chat, Topic: m.Topic, ThreadID: t})
				scancel()
				if err != nil {
					return err
				}
				o.setTopic(m.Chat, m.Topic, t)
				thread = t
			}
		}
	}
	err := o.api.Send(ctx, m, thread)
	if thread != 0 && topicGone(err) {
		sctx, scancel := storeCtx()
		_ = o.store.DeleteChatTopic(sctx, m.Chat, m.Topic)
		scancel()
		o.setTopic(m.Chat, m.Topic, 0)
		return errors.Join(errTopicGone, err)
	}
	return err
}

// topicGone reports whether the Bot API said the thread no longer exists.
func topicGone(err error) bool {
	var e *APIError
	if !errors.As(err, &e) || e.Code != 400 {
		return false
	}
	d := strings.ToLower(e.Description)
	return strings.Contains(d, "thread not found") || strings.Contains(d, "topic_deleted") || strings.Contains(d, "topic deleted")
}
