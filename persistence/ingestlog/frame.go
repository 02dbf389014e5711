package ingestlog

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
)

// headerBytes is a record's framing: payload length and CRC-32C.
const headerBytes = 8

// MaxRecordBytes bounds one payload: an ingest body is at most 16 MiB, and
// a length beyond this in a file is a torn or corrupt header, not a record.
const MaxRecordBytes = 32 << 20

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Errors of Decode: the bytes end inside a record (a torn tail), or the
// record is not what was written.
var (
	ErrShort   = errors.New("ingestlog: record cut short")
	ErrCorrupt = errors.New("ingestlog: record corrupt")
	// ErrEnd: a zero length, the preallocated zeros after the last record.
	// Empty records are never written, so zeros are never a record.
	ErrEnd = errors.New("ingestlog: end of records")
)

// AppendFrame appends payload, framed, to dst.
func AppendFrame(dst, payload []byte) []byte {
	var h [headerBytes]byte
	binary.LittleEndian.PutUint32(h[0:4], uint32(len(payload)))
	binary.LittleEndian.PutUint32(h[4:8], crc32.Checksum(payload, castagnoli))
	return append(append(dst, h[:]...), payload...)
}

// FrameBytes is the framed size of a payload of n bytes.
func FrameBytes(n int) int64 { return int64(headerBytes + n) }

// Decode reads the record at the start of b: its payload (a sub-slice of b)
// and the bytes it spans. It is the decoder of the bytes on disk, which a
// crash may have cut anywhere.
func Decode(b []byte) (payload []byte, n int, err error) {
	if len(b) < headerBytes {
		return nil, 0, ErrShort
	}
	size := binary.LittleEndian.Uint32(b[0:4])
	if size == 0 {
		return nil, 0, ErrEnd
	}
	if size > MaxRecordBytes {
		return nil, 0, ErrCorrupt
	}
	end := headerBytes + int(size)
	if len(b) < end {
		return nil, 0, ErrShort
	}
	payload = b[headerBytes:end]
	if crc32.Checksum(payload, castagnoli) != binary.LittleEndian.Uint32(b[4:8]) {
		return nil, 0, ErrCorrupt
	}
	return payload, end, nil
}

// validPrefix is how many bytes of b are whole, intact records.
func validPrefix(b []byte) int {
	off := 0
	for off < len(b) {
		_, n, err := Decode(b[off:])
		if err != nil {
			break
		}
		off += n
	}
	return off
}
