package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/mirage-hpc/mirage/trace"
)

// jsonDialect decodes the job objects of one sacct --json data_parser
// version. To support a version, implement jsonDialect in
// sacctjson_vNNNN.go and add it to jsonDialects.
type jsonDialect interface {
	// job fills j, already set to trace.NewJob(), from one job object (its
	// raw bytes, valid JSON) and returns the number of its steps, each an
	// object. Cluster is left empty when the object names none; the caller
	// fills SourceFile, SourceLine, Steps and Attempt. On a bad record it
	// returns the JSON path of the bad field ("time.start"; "" for the
	// whole object) and an error wrapping one of the ErrBad* sentinels (or
	// trace.ErrBadState).
	job(raw []byte, j *trace.Job, strs interner) (steps int, field string, err error)
}

// jsonDialects maps canonical data_parser versions ("v0.0.38") to their
// decoders.
var jsonDialects = map[string]jsonDialect{
	"v0.0.38": dialectV0038{},
}

// defaultJSONDialect is the version assumed when the input names none.
const defaultJSONDialect = "v0.0.38"

// jsonSupported lists the supported versions for messages: "v0.0.38".
func jsonSupported() string {
	vs := make([]string, 0, len(jsonDialects))
	for v := range jsonDialects {
		vs = append(vs, v)
	}
	slices.Sort(vs)
	return strings.Join(vs, ", ")
}

// dataParserVersion returns the canonical version ("v0.0.38") named by a
// plugin string in any of Slurm's spellings: "openapi/dbv0.0.38" (Slurm
// 20.11 to 22.05), "data_parser/v0.0.38" (23.02 on), or "v0.0.38". The
// slurmctld plugins ("openapi/v0.0.38", squeue and scontrol output) are not
// sacct output: ok is false for them, as for text that names no version.
func dataParserVersion(s string) (v string, ok bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	kind, v := "", s
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		kind, v = s[:i], s[i+1:]
	}
	switch kind {
	case "openapi":
		var found bool
		if v, found = strings.CutPrefix(v, "db"); !found {
			return "", false
		}
	case "", "data_parser":
	default:
		return "", false
	}
	parts := strings.Split(strings.TrimPrefix(v, "v"), ".")
	if !strings.HasPrefix(v, "v") || len(parts) != 3 {
		return "", false
	}
	for _, p := range parts {
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return "", false
		}
	}
	return v, true
}

// jsonMeta is the part of "meta" that names the data_parser version, in
// the layouts of Slurm 22.05 (plugin.type), 23.02 (plugins.data_parser)
// and 23.11 on (plugin.data_parser).
type jsonMeta struct {
	Plugin struct {
		Type       string `json:"type"`
		DataParser string `json:"data_parser"`
	} `json:"plugin"`
	Plugins struct {
		DataParser string `json:"data_parser"`
	} `json:"plugins"`
}

// plugin returns the first non-empty plugin string of m.
func (m *jsonMeta) plugin() string {
	for _, s := range [...]string{m.Plugin.DataParser, m.Plugins.DataParser, m.Plugin.Type} {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

// jsonReader holds the state of readSacctJSON over one input.
type jsonReader struct {
	c        *collector
	dec      *json.Decoder
	lines    *lineTracker
	cluster  string
	strs     interner
	attempts attempts

	dialect  jsonDialect // of the current document; nil until meta or jobs
	version  string
	jobsSeen int64
	sacctErr string // first entry of a non-empty "errors" list

	raw  json.RawMessage // the current job object, reused
	skip json.RawMessage // values skipped, reused
	// delta is the input offset of dec's offset 0 (minus what it was
	// primed with): not 0 once dec was replaced after an over-long job.
	delta int64
}

// readSacctJSON reads `sacct --json` output: one JSON document (or
// several, concatenated) such as
//
//	{"meta": {"plugin": {"type": "openapi/dbv0.0.38", ...}, "Slurm": {...}},
//	 "errors": [], "jobs": [{job}, {job}, ...]}
//
// It streams: it walks the top-level object with Decoder tokens and
// decodes one job object at a time, so memory is bounded by the largest job
// object. Each job object, and each element of its "steps" array, is one
// input row: a job is written (its steps folded into it) or quarantined
// (its steps with it, as orphan steps). Job and step rows are located by
// the line their object starts on; SourceLine is the job object's line.
// Jobs that appear more than once (sacct -D) are numbered as attempts in
// input order. Times are epoch seconds, so z is not used.
//
// The layout of a job object depends on Slurm's data_parser version, named
// in "meta". Each supported version is a jsonDialect in jsonDialects; a
// version not in it stops the input with ErrUnknownFormat, naming the
// supported ones, because a later layout would quarantine every job. When
// there is no "meta" before "jobs", the jobs are read as
// defaultJSONDialect and the input gets a note; a later meta naming another
// version is then an error. A top-level array is read as a bare list of job
// objects (defaultJSONDialect, noted).
//
// Invalid JSON stops the input with a *ParseError (wrapping ErrBadRecord)
// at the line of the first bad byte, or of the last byte for truncated
// input; the jobs before it have been delivered. Blank input is
// ErrEmptyInput; input without job objects is ErrHeaderOnly (naming the
// first of sacct's "errors", if any).
func readSacctJSON(c *collector, r io.Reader, _ *zone, opts *Options) error {
	lt := &lineTracker{r: r, line: 1, limit: recordLimit(opts.MaxLineBytes)}
	s := &jsonReader{
		c: c, dec: json.NewDecoder(lt), lines: lt, cluster: opts.Cluster,
		strs: interner{}, attempts: attempts{},
	}
	docs := 0
	for {
		tok, err := s.dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return s.syntaxError(err)
		}
		docs++
		s.dialect, s.version = nil, ""
		switch tok {
		case json.Delim('{'):
			err = s.document()
		case json.Delim('['):
			s.assume("the input is a bare array of jobs")
			err = s.jobs(false)
		default:
			err = &ParseError{Path: c.path, Line: s.lineHere(), Err: fmt.Errorf("%w: top-level value %s, want a JSON object", ErrBadRecord, tokenKind(tok))}
		}
		if err != nil {
			return err
		}
	}
	if docs == 0 {
		return fmt.Errorf("%s: %w", c.path, ErrEmptyInput)
	}
	if s.jobsSeen == 0 {
		if s.sacctErr != "" {
			return fmt.Errorf("%s: %w: no jobs; sacct reported: %s", c.path, ErrHeaderOnly, s.sacctErr)
		}
		return fmt.Errorf("%s: %w: no jobs", c.path, ErrHeaderOnly)
	}
	return nil
}

// document reads the members of a top-level object after its '{'.
func (s *jsonReader) document() error {
	for s.dec.More() {
		tok, err := s.dec.Token()
		if err != nil {
			return s.syntaxError(err)
		}
		key, _ := tok.(string)
		switch key {
		case "meta":
			err = s.meta()
		case "errors":
			err = s.sacctErrors()
		case "jobs":
			err = s.jobsValue()
		default:
			err = s.skipValue()
		}
		if err != nil {
			return err
		}
	}
	if _, err := s.dec.Token(); err != nil { // '}'
		return s.syntaxError(err)
	}
	return nil
}

// meta reads "meta" and chooses the dialect it names.
func (s *jsonReader) meta() error {
	line := s.lineHere()
	if err := s.dec.Decode(&s.skip); err != nil {
		return s.syntaxError(err)
	}
	var m jsonMeta
	plugin := ""
	if json.Unmarshal(s.skip, &m) == nil {
		plugin = m.plugin()
	}
	v, ok := dataParserVersion(plugin)
	switch {
	case plugin == "" && s.dialect == nil:
		s.assume("\"meta\" names no data_parser plugin")
		return nil
	case plugin == "":
		return nil
	case !ok:
		return &ParseError{Path: s.c.path, Line: line, Field: "meta.plugin",
			Err: fmt.Errorf("%w: plugin %q is not a sacct --json data_parser (supported: %s)", ErrUnknownFormat, plugin, jsonSupported())}
	}
	d, ok := jsonDialects[v]
	switch {
	case !ok:
		return &ParseError{Path: s.c.path, Line: line, Field: "meta.plugin",
			Err: fmt.Errorf("%w: sacct --json data_parser %s (%q) is not supported (supported: %s)", ErrUnknownFormat, v, plugin, jsonSupported())}
	case s.dialect != nil && v != s.version:
		return &ParseError{Path: s.c.path, Line: line, Field: "meta.plugin",
			Err: fmt.Errorf("%w: \"meta\" names data_parser %s after jobs were read as %s", ErrUnknownFormat, v, s.version)}
	}
	s.dialect, s.version = d, v
	return nil
}

// assume sets the default dialect for a document that has named none, and
// notes why.
func (s *jsonReader) assume(why string) {
	if s.dialect != nil {
		return
	}
	s.dialect, s.version = jsonDialects[defaultJSONDialect], defaultJSONDialect
	note := "sacct --json: " + why + "; read as data_parser " + defaultJSONDialect
	if !slices.Contains(s.c.in.Notes, note) {
		s.c.note(note)
	}
}

// sacctErrors reads "errors" and notes a non-empty list (sacct could not
// read all of the accounting database).
func (s *jsonReader) sacctErrors() error {
	if err := s.dec.Decode(&s.skip); err != nil {
		return s.syntaxError(err)
	}
	var list []json.RawMessage
	if json.Unmarshal(s.skip, &list) != nil || len(list) == 0 {
		return nil
	}
	first := string(list[0])
	if len(first) > 200 {
		first = strings.ToValidUTF8(first[:200], "") + "..."
	}
	if s.sacctErr == "" {
		s.sacctErr = first
	}
	s.c.note(fmt.Sprintf("sacct --json reported %d error(s), the first: %s", len(list), first))
	return nil
}

// jobsValue reads the value of "jobs": an array of job objects, or null.
func (s *jsonReader) jobsValue() error {
	line := s.lineHere()
	tok, err := s.dec.Token()
	if err != nil {
		return s.syntaxError(err)
	}
	switch tok {
	case nil:
		return nil
	case json.Delim('['):
		s.assume("no \"meta\" before \"jobs\"")
		return s.jobs(true)
	}
	return &ParseError{Path: s.c.path, Line: line, Field: "jobs", Err: fmt.Errorf("%w: \"jobs\" is %s, want an array", ErrBadRecord, tokenKind(tok))}
}

// jobs reads job objects up to and including the array's ']'; inDoc
// tells whether the array is the "jobs" member of a document object. A job
// object longer than Options.MaxLineBytes is quarantined whole, without
// being held in memory (see skipTooLong).
func (s *jsonReader) jobs(inDoc bool) error {
	for s.dec.More() {
		from := s.offset()
		if err := s.dec.Decode(&s.raw); err != nil {
			if errors.Is(err, errRecordTooLong) {
				if err := s.skipTooLong(from, inDoc); err != nil {
					return err
				}
				continue
			}
			return s.syntaxError(err)
		}
		end := s.offset()
		line := s.lines.lineAt(end) - int64(bytes.Count(s.raw, []byte{'\n'}))
		s.jobsSeen++
		if len(s.raw) > s.lineLimit() {
			if err := s.tooLong(line, s.raw); err != nil {
				return err
			}
			continue
		}
		if err := s.record(s.raw, line); err != nil {
			return err
		}
	}
	if _, err := s.dec.Token(); err != nil { // ']'
		return s.syntaxError(err)
	}
	return nil
}

// record turns one job object, starting on line, into a job and its folded
// steps, or quarantines them.
func (s *jsonReader) record(raw []byte, line int64) error {
	c := s.c
	if err := c.row(); err != nil {
		return err
	}
	j := trace.NewJob()
	steps, field, err := s.dialect.job(raw, &j, s.strs)
	if err != nil {
		return s.quarantine(raw, line, &ParseError{Path: c.path, Line: line, Field: field, Err: err})
	}
	if j.Cluster == "" {
		j.Cluster = s.cluster
	}
	if perr := s.checkFields(&j, line); perr != nil {
		return s.quarantine(raw, line, perr)
	}
	if field := cleanJobText(&j, raw); field != "" && c.strict {
		return &ParseError{Path: c.path, Line: line, Field: field,
			Err: fmt.Errorf("%w: the string holds invalid UTF-8, a lone surrogate or a control character (replaced with U+FFFD unless --strict)", ErrBadText)}
	}
	j.SourceFile, j.SourceLine = c.source, line
	for range steps {
		if err := c.row(); err != nil {
			return err
		}
		c.step()
	}
	j.Steps = int32(steps)
	s.attempts.set(&j)
	return c.job(&j)
}

// quarantine quarantines a bad job object and, as orphans, its steps.
func (s *jsonReader) quarantine(raw []byte, line int64, perr *ParseError) error {
	c := s.c
	if err := c.bad(perr, raw); err != nil {
		return err
	}
	for i, st := range splitSteps(raw) {
		if err := c.row(); err != nil {
			return err
		}
		sp := &ParseError{Path: c.path, Line: line + st.line, Field: "steps[" + strconv.Itoa(i) + "]",
			Err: fmt.Errorf("%w: its job (line %d) is quarantined", ErrOrphanStep, line)}
		if err := c.bad(sp, st.raw); err != nil {
			return err
		}
	}
	return nil
}

// jsonStep is one element of a job's "steps" array.
type jsonStep struct {
	raw  []byte // the element, a sub-slice of the job object
	line int64  // lines between the job object's start and the element's
}

// splitSteps returns the elements of the "steps" array of a job object
// (the last "steps" member), for quarantining them: none when raw is not an
// object or "steps" is not an array. raw must be valid JSON, as the
// Decoder returns it.
func splitSteps(raw []byte) []jsonStep {
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.Token() // '{'
	var steps []jsonStep
	var skip json.RawMessage
	for dec.More() {
		tok, _ := dec.Token()
		if key, _ := tok.(string); key != "steps" {
			dec.Decode(&skip)
			continue
		}
		steps = steps[:0]
		tok, _ = dec.Token()
		if tok == json.Delim('{') {
			skipRest(dec) // an object is not a list of steps
		}
		if tok != json.Delim('[') {
			continue
		}
		for dec.More() {
			dec.Decode(&skip)
			end := int(dec.InputOffset())
			start := end - len(skip)
			steps = append(steps, jsonStep{raw: raw[start:end:end], line: int64(bytes.Count(raw[:start], []byte{'\n'}))})
		}
		dec.Token() // ']'
	}
	return steps
}

// skipRest reads the tokens of dec up to the end of the object or array
// whose opening delimiter it has just read.
func skipRest(dec *json.Decoder) {
	for depth := 1; depth > 0; {
		tok, err := dec.Token()
		if err != nil {
			return
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
}

// skipValue skips the next value of the document.
func (s *jsonReader) skipValue() error {
	if err := s.dec.Decode(&s.skip); err != nil {
		return s.syntaxError(err)
	}
	s.lines.lineAt(s.offset()) // release the skipped bytes
	return nil
}

// lineHere returns the line of the decoder's position.
func (s *jsonReader) lineHere() int64 { return s.lines.lineAt(s.offset()) }

// offset returns the decoder's position as an input offset.
func (s *jsonReader) offset() int64 { return s.dec.InputOffset() + s.delta }

// syntaxError turns a decoding error into a *ParseError at the line of the
// first bad byte, or an I/O error into a plain one.
func (s *jsonReader) syntaxError(err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &te): // a number beyond float64 where a token was read
		return &ParseError{Path: s.c.path, Line: s.lineHere(),
			Err: fmt.Errorf("%w: invalid JSON: a %s out of range", ErrBadRecord, te.Value)}
	case errors.Is(err, errRecordTooLong):
		return &ParseError{Path: s.c.path, Line: s.lineHere(),
			Err: fmt.Errorf("%w: a JSON value outside the jobs array longer than %d bytes (--max-line-bytes)", ErrLineTooLong, s.lineLimit())}
	case errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF:
		return &ParseError{Path: s.c.path, Line: s.lines.lastLine(),
			Err: fmt.Errorf("%w: unexpected end of input (truncated JSON)", ErrBadRecord)}
	case errors.As(err, &se):
		// A bad delimiter is reported at the decoder's position. The
		// offset of an error inside a value is not a position in the
		// stream: find the bad byte again from the decoder's position,
		// which is the start of the failed value.
		at := s.dec.InputOffset()
		line, msg := s.lines.lineAt(at+s.delta), se.Error()
		if se.Offset != at {
			line, msg = s.lines.findSyntaxError(at + s.delta)
			if msg == "" {
				msg = se.Error()
			}
		}
		return &ParseError{Path: s.c.path, Line: line, Err: fmt.Errorf("%w: invalid JSON: %s", ErrBadRecord, msg)}
	}
	return fmt.Errorf("read %s: %w", s.c.path, err)
}

// tokenKind names a JSON token for messages.
func tokenKind(tok json.Token) string {
	switch t := tok.(type) {
	case nil:
		return "null"
	case json.Delim:
		if t == '{' {
			return "an object"
		}
		if t == '[' {
			return "an array"
		}
		return strconv.Quote(t.String())
	case string:
		return "a string"
	case bool:
		return "a boolean"
	}
	return "a number"
}

// rawKind names the kind of a raw JSON value for messages.
func rawKind(raw []byte) string {
	if len(raw) == 0 {
		return "empty"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// lineTracker passes reads through and maps input offsets to 1-indexed
// line numbers. Offsets asked about must not decrease (smaller ones get
// the line of the last offset); it keeps only the bytes read past the last
// offset asked about, so memory is bounded by the decoder's read-ahead.
type lineTracker struct {
	r    io.Reader
	buf  []byte // input from offset base on
	base int64
	line int64 // line of the byte at base
	// limit bounds len(buf) (0: none): beyond it Read fails with
	// errRecordTooLong.
	limit int
}

func (t *lineTracker) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.buf = append(t.buf, p[:n]...)
	if t.limit > 0 && len(t.buf) > t.limit {
		return n, errRecordTooLong
	}
	return n, err
}

// lineAt returns the line of the byte at offset off and forgets the bytes
// before it.
func (t *lineTracker) lineAt(off int64) int64 {
	k := min(max(off-t.base, 0), int64(len(t.buf)))
	t.line += int64(bytes.Count(t.buf[:k], []byte{'\n'}))
	t.buf = t.buf[k:]
	t.base += k
	return t.line
}

// lastLine returns the line of the last byte read.
func (t *lineTracker) lastLine() int64 {
	end := t.base + int64(len(t.buf))
	if len(t.buf) > 0 && t.buf[len(t.buf)-1] == '\n' {
		end--
	}
	return t.lineAt(end)
}

// findSyntaxError scans the bytes read from offset from (a value, or a bad
// delimiter) for the first syntax error and returns its line and message;
// the message is "" when the bytes read hold no error.
func (t *lineTracker) findSyntaxError(from int64) (int64, string) {
	line := t.lineAt(from)
	var v json.RawMessage
	err := json.Unmarshal(t.buf, &v)
	var se *json.SyntaxError
	if !errors.As(err, &se) || se.Offset < 1 {
		return line, ""
	}
	return t.lineAt(t.base + se.Offset - 1), se.Error()
}
