package pipelines

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/ingest"
	"github.com/mirage-hpc/mirage/trace"
)

// Periods of a study, for Protocol.
const (
	PeriodTrain      = "train"
	PeriodValidation = "validation"
)

// Resolve returns the study in the file at nameOrPath, or else the
// built-in study of that name.
func Resolve(nameOrPath string) (*Study, error) {
	data, err := os.ReadFile(nameOrPath)
	switch {
	case err == nil:
		return Load(nameOrPath, data)
	case isDir(nameOrPath) && !strings.ContainsAny(nameOrPath, "/.\\"):
		// A directory named like a built-in study (an output directory
		// "synth" in the working directory) is not a study file.
		if s, _, berr := Builtin(nameOrPath); berr == nil {
			return s, nil
		}
		return nil, fmt.Errorf("study %s: %w", nameOrPath, err)
	case !os.IsNotExist(err):
		return nil, fmt.Errorf("study %s: %w", nameOrPath, err)
	}
	if strings.ContainsAny(nameOrPath, "/.\\") {
		return nil, fmt.Errorf("%w: study file %s: %w", ErrStudy, nameOrPath, err)
	}
	s, _, err := Builtin(nameOrPath)
	return s, err
}

// Protocol returns the features protocol of one period: PeriodTrain or
// PeriodValidation.
func (s *Study) Protocol(period string) (features.Protocol, error) {
	train, val, err := s.Protocols()
	if err != nil {
		return features.Protocol{}, err
	}
	switch period {
	case PeriodTrain:
		return train, nil
	case PeriodValidation:
		return val, nil
	}
	return features.Protocol{}, fmt.Errorf("%w: period %q: want %s or %s", ErrStudy, period, PeriodTrain, PeriodValidation)
}

// CheckTrace compares the zone a Parquet trace was ingested in (its
// mirage.ingest metadata) with the study's trace.zone: a trace ingested
// in another zone would shift every calendar time of the study. A trace
// without that metadata passes.
func (s *Study) CheckTrace(path string) error {
	zone, err := TraceZone(path)
	if err != nil || zone == "" {
		return err
	}
	if zone != s.Trace.Zone {
		return fmt.Errorf("%w: trace %s was ingested in zone %s but study %s says trace.zone %s: ingest it again with --tz %s, or set trace.zone",
			ErrStudy, path, zone, s.Name, s.Trace.Zone, s.Trace.Zone)
	}
	return nil
}

// TraceZone returns the zone a Parquet trace was ingested in (its
// mirage.ingest metadata), or "" when it does not say.
func TraceZone(path string) (string, error) {
	r, err := trace.Open(path)
	if err != nil {
		return "", err
	}
	defer r.Close()
	v, ok := r.Metadata(ingest.MetaIngest)
	if !ok {
		return "", nil
	}
	var m struct {
		TZ string `json:"tz"`
	}
	if json.Unmarshal([]byte(v), &m) != nil {
		return "", nil
	}
	return m.TZ, nil
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
