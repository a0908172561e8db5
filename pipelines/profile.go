package pipelines

import (
	"fmt"
	"path/filepath"

	"github.com/mirage-hpc/mirage/sim"
)

// SimProfile returns the study's simulator profile, cluster.profile: a
// built-in profile's name (sim.ProfileNames) or a profile file, a
// relative path being relative to the study file's directory. Errors wrap
// ErrStudy and name cluster.profile.
func (s *Study) SimProfile() (sim.Profile, error) {
	name := s.Cluster.Profile
	if name != "" && !sim.IsBuiltinProfile(name) && !filepath.IsAbs(name) && s.dir != "" {
		name = filepath.Join(s.dir, name)
	}
	p, err := sim.LoadProfile(name)
	if err != nil {
		return p, fmt.Errorf("%w: cluster.profile: %w", ErrStudy, err)
	}
	return p, nil
}
