package docindex

import (
	"bufio"
	"io"
	"os"
)

// chunkReader streams the lines of one sorted rebuild chunk; head is the
// current line with its "\n" ("" once exhausted).
type chunkReader struct {
	f    *os.File
	r    *bufio.Reader
	head string
}

func openChunk(path string) (*chunkReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &PHPError{Msg: "Could not read range index chunk: " + path, Err: err}
	}
	c := &chunkReader{f: f, r: bufio.NewReaderSize(f, 64<<10)}
	if err := c.next(); err != nil {
		f.Close()
		return nil, err
	}
	return c, nil
}

func (c *chunkReader) next() error {
	line, err := c.r.ReadString('\n')
	if err != nil && err != io.EOF {
		return &PHPError{Msg: "Could not read range index chunk: " + c.f.Name(), Err: err}
	}
	c.head = line
	return nil
}

func (c *chunkReader) close() { c.f.Close() }
