package docindex

import (
	"bufio"
	"io"
	"os"

	"github.com/storhfs/storhfs/core/fsutil"
)

// sortedLines is one sorted input of the range merge: a chunk file read
// line by line, or the lines still held in memory. head is the current line
// with its "\n" (nil once exhausted).
type sortedLines struct {
	f    *os.File      // chunk file, nil for held lines
	r    *bufio.Reader // over f
	held [][]byte      // remaining held lines after head
	head []byte
}

func openChunk(path string) (*sortedLines, error) {
	f, err := fsutil.Open(path)
	if err != nil {
		return nil, &PHPError{Msg: "Could not read range index chunk: " + path, Err: err}
	}
	s := &sortedLines{f: f, r: bufio.NewReaderSize(f, 64<<10)}
	if err := s.next(); err != nil {
		f.Close()
		return nil, err
	}
	return s, nil
}

func heldLines(lines [][]byte) *sortedLines {
	s := &sortedLines{held: lines}
	_ = s.next() // cannot fail without a file
	return s
}

func (s *sortedLines) next() error {
	if s.f == nil {
		s.head = nil
		if len(s.held) > 0 {
			s.head, s.held = s.held[0], s.held[1:]
		}
		return nil
	}
	line, err := s.r.ReadBytes('\n')
	if err != nil && err != io.EOF {
		return &PHPError{Msg: "Could not read range index chunk: " + s.f.Name(), Err: err}
	}
	s.head = nil
	if len(line) > 0 {
		s.head = line
	}
	return nil
}

func (s *sortedLines) close() {
	if s.f != nil {
		s.f.Close()
	}
}
