package advise

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"sync"
)

// errSplit means the document is not an object whose values the splitter
// can delimit; ParseSqueueJSON then reports the standard decoder's error.
var errSplit = errors.New("split squeue JSON")

// splitJobs returns the byte ranges of the elements of the top-level
// object's "jobs" array, and whether the key was present. It only
// delimits values (brackets and braces outside strings); each element is
// validated when it is decoded.
func splitJobs(b []byte) (elems [][2]int, found bool, err error) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, false, errSplit
	}
	i = skipSpace(b, i+1)
	for i < len(b) && b[i] != '}' {
		if b[i] != '"' {
			return nil, false, errSplit
		}
		kEnd, err := skipString(b, i)
		if err != nil {
			return nil, false, err
		}
		key := b[i+1 : kEnd-1]
		if bytes.IndexByte(key, '\\') >= 0 || bytes.EqualFold(key, []byte("jobs")) && string(key) != "jobs" {
			return nil, false, errSplit // encoding/json would match it to "jobs": let it
		}
		i = skipSpace(b, kEnd)
		if i >= len(b) || b[i] != ':' {
			return nil, false, errSplit
		}
		i = skipSpace(b, i+1)
		if string(key) == "jobs" && i < len(b) && b[i] == '[' {
			found = true
			elems = elems[:0]
			i = skipSpace(b, i+1)
			for i < len(b) && b[i] != ']' {
				end, err := skipValue(b, i)
				if err != nil {
					return nil, false, err
				}
				elems = append(elems, [2]int{i, end})
				i = skipSpace(b, end)
				if i < len(b) && b[i] == ',' {
					i = skipSpace(b, i+1)
				}
			}
			if i >= len(b) {
				return nil, false, errSplit
			}
			i++
		} else {
			end, err := skipValue(b, i)
			if err != nil {
				return nil, false, err
			}
			i = end
		}
		i = skipSpace(b, i)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	if i >= len(b) {
		return nil, false, errSplit
	}
	return elems, found, nil
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i] ('"').
func skipString(b []byte, i int) (int, error) {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1, nil
		}
	}
	return 0, errSplit
}

// skipValue returns the index after the value starting at b[i].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errSplit
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				end, err := skipString(b, i)
				if err != nil {
					return 0, err
				}
				i = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, nil
				}
			}
		}
		return 0, errSplit
	}
	for j := i; j < len(b); j++ { // a number, true, false or null
		switch b[j] {
		case ',', '}', ']', ' ', '\n', '\r', '\t':
			if j == i {
				return 0, errSplit
			}
			return j, nil
		}
	}
	return 0, errSplit
}

// decodeJobs decodes the elements of b on up to GOMAXPROCS goroutines,
// keeping their order; the first error in element order wins.
func decodeJobs(b []byte, elems [][2]int) ([]squeueJSONJob, error) {
	out := make([]squeueJSONJob, len(elems))
	errs := make([]error, len(elems))
	workers := min(runtime.GOMAXPROCS(0), max(len(elems)/256, 1))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := w; k < len(elems); k += workers {
				errs[k] = decodeJob(b[elems[k][0]:elems[k][1]], &out[k])
			}
		}()
	}
	wg.Wait()
	for k, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("job %d: %w", k, err)
		}
	}
	return out, nil
}
