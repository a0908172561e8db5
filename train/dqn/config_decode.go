package dqn

import (
	"bytes"
	"encoding/json"
	"errors"
)

// ErrConfig means a hyper-parameter document does not decode into a
// Config (ConfigError).
var ErrConfig = errors.New("dqn config")

// ConfigError is a hyper-parameter document that does not decode into a
// Config: bad JSON, a field a Config does not have, or a value of the
// wrong type. It matches ErrConfig; its message is the decoder's.
type ConfigError struct{ Err error }

// Error returns the decoder's message.
func (e *ConfigError) Error() string { return e.Err.Error() }

// Unwrap returns the decoder's error.
func (e *ConfigError) Unwrap() error { return e.Err }

// Is reports whether target is ErrConfig.
func (e *ConfigError) Is(target error) bool { return target == ErrConfig }

// DecodeConfig returns DefaultConfig with the fields of raw (a JSON
// object of a manifest's hyper_parameters fields; empty: none) set, and
// Episodes set to episodes when it is > 0. A field a Config does not
// have is an error (*ConfigError). It is the hyper-parameter decoding of
// `mirage train --dqn-config` and of a study's dqn fields.
func DecodeConfig(raw []byte, episodes int) (Config, error) {
	cfg := DefaultConfig()
	if len(raw) > 0 {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&cfg); err != nil {
			return cfg, &ConfigError{Err: err}
		}
	}
	if episodes > 0 {
		cfg.Episodes = episodes
	}
	return cfg, nil
}
