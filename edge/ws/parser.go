package ws

import (
	"encoding/binary"
	"unicode/utf8"

	"github.com/gobwas/ws"
)

// closeError fails a connection: the state reported to the handler and the
// close code sent to the peer.
type closeError struct {
	state  ClosedState
	code   ws.StatusCode
	reason string
}

func (e *closeError) Error() string { return "ws: " + e.state.String() + ": " + e.reason }

var (
	errRsv            = &closeError{ProtocolError, ws.StatusProtocolError, "reserved bits set"}
	errOpcode         = &closeError{ProtocolError, ws.StatusProtocolError, "reserved opcode"}
	errUnmasked       = &closeError{ProtocolError, ws.StatusProtocolError, "unmasked client frame"}
	errCtlFragmented  = &closeError{ProtocolError, ws.StatusProtocolError, "fragmented control frame"}
	errCtlTooLong     = &closeError{ProtocolError, ws.StatusProtocolError, "control frame over 125 bytes"}
	errContUnexpected = &closeError{ProtocolError, ws.StatusProtocolError, "continuation without a message"}
	errContExpected   = &closeError{ProtocolError, ws.StatusProtocolError, "new message inside a fragmented one"}
	errLength         = &closeError{ProtocolError, ws.StatusProtocolError, "invalid payload length"}
	errCloseLen       = &closeError{ProtocolError, ws.StatusProtocolError, "close payload of one byte"}
	errCloseCode      = &closeError{ProtocolError, ws.StatusProtocolError, "invalid close code"}
	errCloseUTF8      = &closeError{ProtocolError, ws.StatusProtocolError, "close reason not UTF-8"}
	errUTF8           = &closeError{InvalidUTF8, ws.StatusInvalidFramePayloadData, "text not UTF-8"}
	errTooBig         = &closeError{MessageTooBig, ws.StatusMessageTooBig, "message too big"}
)

// frameSink receives what the parser decodes. Payloads are unmasked and
// only valid during the call. A false return stops the parser (the
// connection is closing).
type frameSink interface {
	frameStart() bool
	message(op ws.OpCode, payload []byte) bool
	control(op ws.OpCode, payload []byte) bool
}

// parser is an incremental RFC 6455 server-side frame decoder: it takes
// whatever bytes a non-blocking read returned, in pieces of any size, and
// keeps between calls only the header bytes seen so far (at most 14), the
// current frame's position, and the part of a message that spans reads.
// A message that arrives whole in one read is delivered from the read
// buffer itself (unmasked in place), with no copy.
type parser struct {
	hdr    [ws.MaxHeaderSize]byte
	hn     uint8 // header bytes collected
	need   uint8 // header length, known once hn >= 2
	inPay  bool  // inside the current frame's payload
	fin    bool
	frag   bool // a fragmented message is open: continuation expected
	stop   bool // close frame seen or error: ignore further input
	op     ws.OpCode
	msgOp  ws.OpCode // opcode of the data message being assembled
	mask   [4]byte
	flen   int64 // current frame payload length
	remain int64 // current frame payload bytes still to come
	msg    *buffer
	ctl    []byte
}

// feed decodes b (which it unmasks in place). It returns a *closeError when
// the peer broke the protocol or a limit.
func (p *parser) feed(b []byte, s frameSink, limit, maxFrame int64) error {
	for !p.stop {
		if !p.inPay {
			if len(b) == 0 {
				return nil
			}
			if p.hn < 2 {
				n := copy(p.hdr[p.hn:2], b)
				p.hn += uint8(n)
				b = b[n:]
				if p.hn < 2 {
					return nil
				}
				if err := p.checkFirst(); err != nil {
					return p.fail(err)
				}
			}
			if p.hn < p.need {
				n := copy(p.hdr[p.hn:p.need], b)
				p.hn += uint8(n)
				b = b[n:]
				if p.hn < p.need {
					return nil
				}
			}
			if err := p.startFrame(limit, maxFrame); err != nil {
				return p.fail(err)
			}
			if !s.frameStart() {
				p.stop = true
				return nil
			}
		}
		n := min(p.remain, int64(len(b)))
		chunk := b[:n]
		b = b[n:]
		if err := p.payload(chunk, s, limit); err != nil {
			return p.fail(err)
		}
		if p.inPay {
			return nil // b is used up; the frame continues in the next read
		}
	}
	return nil
}

func (p *parser) checkFirst() error {
	b0, b1 := p.hdr[0], p.hdr[1]
	p.fin = b0&0x80 != 0
	p.op = ws.OpCode(b0 & 0x0f)
	l7 := b1 & 0x7f
	switch {
	case b0&0x70 != 0:
		return errRsv
	case p.op.IsReserved():
		return errOpcode
	case b1&0x80 == 0:
		return errUnmasked
	}
	if p.op.IsControl() {
		if !p.fin {
			return errCtlFragmented
		}
		if l7 > 125 {
			return errCtlTooLong
		}
	} else if p.op == ws.OpContinuation {
		if !p.frag {
			return errContUnexpected
		}
	} else if p.frag {
		return errContExpected
	}
	switch l7 {
	case 126:
		p.need = 2 + 2 + 4
	case 127:
		p.need = 2 + 8 + 4
	default:
		p.need = 2 + 4
	}
	return nil
}

func (p *parser) startFrame(limit, maxFrame int64) error {
	var l int64
	switch l7 := p.hdr[1] & 0x7f; l7 {
	case 126:
		l = int64(binary.BigEndian.Uint16(p.hdr[2:4]))
	case 127:
		u := binary.BigEndian.Uint64(p.hdr[2:10])
		if u>>63 != 0 {
			return errLength
		}
		l = int64(u)
	default:
		l = int64(l7)
	}
	copy(p.mask[:], p.hdr[p.need-4:p.need])
	if !p.op.IsControl() {
		if l > maxFrame {
			return errTooBig
		}
		var cur int64
		if p.msg != nil {
			cur = int64(len(p.msg.b))
		}
		if cur+l > limit {
			return errTooBig
		}
	}
	p.flen, p.remain = l, l
	p.inPay = true
	p.hn = 0
	return nil
}

func (p *parser) payload(chunk []byte, s frameSink, limit int64) error {
	off := p.flen - p.remain
	ws.Cipher(chunk, p.mask, int(off&3))
	p.remain -= int64(len(chunk))

	if p.op.IsControl() {
		data := chunk
		if p.remain > 0 || p.ctl != nil {
			if p.ctl == nil {
				p.ctl = make([]byte, 0, p.flen)
			}
			p.ctl = append(p.ctl, chunk...)
			if p.remain > 0 {
				return nil
			}
			data = p.ctl
		}
		p.inPay = false
		err := p.control(data, s)
		p.ctl = nil
		return err
	}

	if off == 0 && p.remain == 0 && p.fin && !p.frag && p.msg == nil {
		// The whole message is in this read: deliver it in place.
		p.inPay = false
		if p.op == ws.OpText && !utf8.Valid(chunk) {
			return errUTF8
		}
		if !s.message(p.op, chunk) {
			p.stop = true
		}
		return nil
	}

	if p.msg == nil {
		// The first bytes of a message that spans reads or frames. The
		// frame length is only the peer's claim: reserve for the bytes that
		// are here (at least the 4 KiB class) and grow as more arrive, so
		// a peer that announces a big frame and stalls costs little.
		p.msg = getBuffer(int(min(p.flen, limit, max(int64(len(chunk)), 4096))))
	}
	if p.op != ws.OpContinuation && off == 0 {
		p.msgOp = p.op
	}
	p.msg.append(chunk)
	if p.remain > 0 {
		return nil
	}
	p.inPay = false
	if !p.fin {
		p.frag = true
		return nil
	}
	p.frag = false
	m := p.msg
	p.msg = nil
	defer putBuffer(m)
	if p.msgOp == ws.OpText && !utf8.Valid(m.b) {
		return errUTF8
	}
	if !s.message(p.msgOp, m.b) {
		p.stop = true
	}
	return nil
}

func (p *parser) control(data []byte, s frameSink) error {
	if p.op == ws.OpClose {
		p.stop = true
		switch {
		case len(data) == 1:
			return errCloseLen
		case len(data) >= 2:
			code := ws.StatusCode(binary.BigEndian.Uint16(data))
			if !validCloseCode(code) {
				return errCloseCode
			}
			if !utf8.Valid(data[2:]) {
				return errCloseUTF8
			}
		}
		s.control(ws.OpClose, data)
		return nil
	}
	if !s.control(p.op, data) {
		p.stop = true
	}
	return nil
}

func (p *parser) fail(err error) error {
	p.stop = true
	p.reset()
	return err
}

// reset drops buffered message bytes (on close or failure).
func (p *parser) reset() {
	if p.msg != nil {
		putBuffer(p.msg)
		p.msg = nil
	}
	p.ctl = nil
}

// validCloseCode: the codes a peer may send (RFC 6455 7.4 and the IANA
// registry): 1000-1003, 1007-1014, and 3000-4999 for applications.
func validCloseCode(c ws.StatusCode) bool {
	switch {
	case c >= 1000 && c <= 1003, c >= 1007 && c <= 1014:
		return true
	case c >= 3000 && c <= 4999:
		return true
	}
	return false
}
