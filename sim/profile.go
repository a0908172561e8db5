package sim

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// ErrProfile is wrapped by LoadProfile's and Profile.Validate's errors.
var ErrProfile = errors.New("bad sim profile")

// Profile is what the simulator knows of a cluster: the scheduler's
// configuration and how a trace of the cluster is turned into simulator
// jobs (dependency and capacity inference). Every stage that simulates
// takes one; the built-in profiles are YAML files (ProfileNames,
// BuiltinProfile) that a user can copy, edit and load with LoadProfile.
type Profile struct {
	// Name names the profile in messages and records; a profile file
	// without a name takes its file name without the extension.
	Name string `yaml:"name" json:"name"`
	// NodesFromTrace marks Config.Nodes as a placeholder rather than a
	// cluster's size: a stage that can size the partition from the whole
	// trace (analyze without a node count) does so instead.
	NodesFromTrace bool `yaml:"nodes_from_trace,omitempty" json:"nodes_from_trace,omitempty"`
	// Config is the scheduler.
	Config Config `yaml:"config" json:"config"`
	// InferDependencies, when set, replays the cluster's traces with
	// inferred dependencies (FromTraceOptions.Infer).
	InferDependencies *InferOptions `yaml:"infer_dependencies,omitempty" json:"infer_dependencies,omitempty"`
	// InferCapacity, when set, replays them with Config.Capacity inferred
	// from the trace (InferCapacity, its Nodes the partition size).
	InferCapacity *CapacityOptions `yaml:"infer_capacity,omitempty" json:"infer_capacity,omitempty"`
	// Partitions are the cluster's partitions, each replayed on its own
	// pool of nodes (Split); none means one pool of Config.Nodes for
	// every job.
	Partitions []Partition `yaml:"partitions,omitempty" json:"partitions,omitempty"`
}

// DependencyOptions returns the dependency inference to use when it is
// on: the profile's, or the defaults when the profile has none.
func (p Profile) DependencyOptions() *InferOptions {
	if p.InferDependencies != nil {
		o := *p.InferDependencies
		return &o
	}
	return &InferOptions{}
}

// FromTraceOptions returns the conversion of a trace for a partition of
// nodes nodes (FromTraceOptions.MaxNodes) with the profile's dependency
// inference, when it has one (a copy of it); From and To are left 0.
func (p Profile) FromTraceOptions(nodes int) FromTraceOptions {
	o := FromTraceOptions{MaxNodes: nodes}
	if p.InferDependencies != nil {
		o.Infer = p.DependencyOptions()
		o.Infer.Nodes = nodes
	}
	return o
}

// CapacityOptions returns the capacity inference to use when it is on,
// capped at nodes (the simulated partition size): the profile's, or,
// when the profile has none, the causal inference with the default
// bucket and nothing else.
func (p Profile) CapacityOptions(nodes int) CapacityOptions {
	o := CapacityOptions{BucketSec: DefaultCapacityBucketSec, Causal: true}
	if p.InferCapacity != nil {
		o = *p.InferCapacity
	}
	o.Nodes = nodes
	return o
}

//go:embed profiles/*.yaml
var builtinProfiles embed.FS

// ProfileNames lists the built-in profiles, sorted.
func ProfileNames() []string {
	entries, _ := fs.ReadDir(builtinProfiles, "profiles")
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	slices.Sort(names)
	return names
}

// IsBuiltinProfile reports whether name is a built-in profile's name.
func IsBuiltinProfile(name string) bool { return slices.Contains(ProfileNames(), name) }

// BuiltinProfileYAML returns a built-in profile's YAML file, comments
// included: what `mirage sim profile show NAME` prints for a user to copy.
func BuiltinProfileYAML(name string) ([]byte, error) {
	if !IsBuiltinProfile(name) {
		return nil, fmt.Errorf("%w %q: no such built-in one (built in: %s)", ErrProfile, name, strings.Join(ProfileNames(), ", "))
	}
	return builtinProfiles.ReadFile("profiles/" + name + ".yaml")
}

// BuiltinProfile returns a built-in profile; "" is "default".
func BuiltinProfile(name string) (Profile, error) {
	if name == "" {
		name = "default"
	}
	b, err := BuiltinProfileYAML(name)
	if err != nil {
		return Profile{}, err
	}
	parsed := builtinParsed()
	if p, ok := parsed[name]; ok {
		return p.clone(), nil
	}
	return ParseProfile("built-in profile "+name, name, b)
}

// builtinParsed holds the built-in profiles that parse (all of them, as
// TestBuiltinProfile_AsGoWroteThem checks), parsed once.
var builtinParsed = sync.OnceValue(func() map[string]Profile {
	m := map[string]Profile{}
	for _, name := range ProfileNames() {
		b, _ := builtinProfiles.ReadFile("profiles/" + name + ".yaml")
		if p, err := ParseProfile("built-in profile "+name, name, b); err == nil {
			m[name] = p
		}
	}
	return m
})

// mustBuiltinProfile returns a built-in profile, panicking if it does not
// parse (a build without valid profiles/*.yaml).
func mustBuiltinProfile(name string) Profile {
	p, err := BuiltinProfile(name)
	if err != nil {
		panic(err)
	}
	return p
}

// clone returns a copy of p sharing nothing with it.
func (p Profile) clone() Profile {
	p.Config.Capacity = slices.Clone(p.Config.Capacity)
	if p.InferDependencies != nil {
		d := *p.InferDependencies
		p.InferDependencies = &d
	}
	if p.InferCapacity != nil {
		c := *p.InferCapacity
		p.InferCapacity = &c
	}
	return p
}

// LoadProfile returns the profile nameOrPath names: a built-in profile
// (ProfileNames; "" is "default"), else the YAML file at that path (at
// most MaxProfileBytes). A config field the file leaves out takes the
// default profile's value (DefaultConfig); the inferences are off unless
// the file has them. The file's unknown fields are errors naming the
// field and line, and every value is validated (Profile.Validate), the
// message naming the field.
func LoadProfile(nameOrPath string) (Profile, error) {
	if nameOrPath == "" || IsBuiltinProfile(nameOrPath) {
		return BuiltinProfile(nameOrPath)
	}
	b, err := readProfileFile(nameOrPath)
	if err != nil {
		return Profile{}, err
	}
	name := strings.TrimSuffix(filepath.Base(nameOrPath), filepath.Ext(nameOrPath))
	return parseProfile(nameOrPath, name, b, DefaultConfig())
}

// MaxProfileBytes bounds a profile file's size: 1 MiB.
const MaxProfileBytes = 1 << 20

// readProfileFile reads a regular file of at most MaxProfileBytes.
func readProfileFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w %q: neither a built-in one (%s) nor a file", ErrProfile, path, strings.Join(ProfileNames(), ", "))
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrProfile, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s: not a regular file", ErrProfile, path)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxProfileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrProfile, err)
	}
	if len(b) > MaxProfileBytes {
		return nil, fmt.Errorf("%w: %s: larger than %d bytes", ErrProfile, path, MaxProfileBytes)
	}
	return b, nil
}

// ParseProfile decodes and validates a profile's YAML, every field given
// (a config field left out is zero). source names it in errors (a file's
// path); name is the profile's name when the YAML gives none.
func ParseProfile(source, name string, data []byte) (Profile, error) {
	return parseProfile(source, name, data, Config{})
}

// parseProfile is ParseProfile with the config fields the YAML leaves out
// taken from base.
func parseProfile(source, name string, data []byte, base Config) (Profile, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	p := Profile{Config: base}
	p.Config.Capacity = slices.Clone(base.Capacity)
	if err := dec.Decode(&p); err != nil {
		if errors.Is(err, io.EOF) {
			return Profile{}, fmt.Errorf("%w: %s: empty", ErrProfile, source)
		}
		return Profile{}, fmt.Errorf("%w: %s", ErrProfile, yamlMessage(source, err))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return Profile{}, fmt.Errorf("%w: %s: more than one YAML document", ErrProfile, source)
	}
	if p.Name == "" {
		p.Name = name
	}
	if err := p.Validate(); err != nil {
		var fe *fieldError
		if !errors.As(err, &fe) {
			return Profile{}, fmt.Errorf("%s: %w", source, err)
		}
		at := source
		var root yaml.Node
		if yaml.Unmarshal(data, &root) == nil {
			if line := fieldLine(&root, fe.path); line > 0 {
				at = fmt.Sprintf("%s:%d", source, line)
			}
		}
		return Profile{}, fmt.Errorf("%w: %s: %w", ErrProfile, at, fe)
	}
	return p, nil
}

// yamlMessage is a YAML decoding error as "source:line: message", one
// per bad field, joined with "; ".
func yamlMessage(source string, err error) string {
	msgs := []string{strings.TrimPrefix(err.Error(), "yaml: ")}
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msgs = te.Errors
	}
	out := make([]string, len(msgs))
	for i, m := range msgs {
		if rest, ok := strings.CutPrefix(m, "line "); ok {
			if n, msg, ok := strings.Cut(rest, ": "); ok {
				out[i] = source + ":" + n + ": " + msg
				continue
			}
		}
		out[i] = source + ": " + m
	}
	return strings.Join(out, "; ")
}

// YAML returns the profile as a YAML file LoadProfile reads back (without
// the built-in files' comments).
func (p Profile) YAML() ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(p); err != nil {
		return nil, err
	}
	return b.Bytes(), enc.Close()
}

// BuiltinName returns the name of the built-in profile whose settings
// are p's (its Name aside), or "" when none is: a copy of a built-in
// profile file, renamed or not, is that profile.
func (p Profile) BuiltinName() string {
	p.Name = ""
	for _, name := range ProfileNames() {
		b := builtinParsed()[name]
		b.Name = ""
		if reflect.DeepEqual(p, b) {
			return name
		}
	}
	return ""
}
