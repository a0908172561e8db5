package evaluate

import (
	"fmt"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/train/dqn"
)

// DQN submits Q when the DQN's advantage of submitting at the decision
// time reaches its manifest's operating point (a bias chosen on held-out
// training windows for an overlap budget), or, without one, when its
// greedy action is submit (arg-max of the Q-values; ties wait). It is
// deterministic.
type DQN struct {
	Label string
	Model *dqn.Model
}

// NewDQN opens a DQN model directory (mirage train --model dqn; another
// kind is a *train.KindError) and checks its features against the
// features package's. Decide fails (train.ErrBadModel) when a Q-value is
// NaN or infinite.
func NewDQN(label, dir string) (*DQN, error) {
	m, err := dqn.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := m.Check(features.Names(), features.FeatureSchemaVersion); err != nil {
		return nil, fmt.Errorf("model %s: %w", dir, err)
	}
	return &DQN{Label: label, Model: m}, nil
}

func (p *DQN) Name() string { return p.Label }

func (p *DQN) Decide(c *DecisionContext) (bool, error) {
	f, err := c.Features()
	if err != nil {
		return false, err
	}
	return p.Model.Decide(f, int(c.Q.Nodes))
}
