package dqn_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/train/dqn"
)

func TestDecodeConfig(t *testing.T) {
	def := dqn.DefaultConfig()
	with := func(f func(*dqn.Config)) dqn.Config {
		c := dqn.DefaultConfig()
		f(&c)
		return c
	}
	tests := []struct {
		Name     string
		Raw      string
		Episodes int
		Want     dqn.Config
		Msg      string // the decoder's message; "" for no error
	}{
		{Name: "Empty", Want: def},
		{Name: "Episodes", Episodes: 7, Want: with(func(c *dqn.Config) { c.Episodes = 7 })},
		{Name: "Fields", Raw: `{"seed": 9, "hidden": [4, 2]}`, Want: with(func(c *dqn.Config) { c.Seed, c.Hidden = 9, []int{4, 2} })},
		{Name: "EpisodesOverFile", Raw: `{"episodes": 3}`, Episodes: 5, Want: with(func(c *dqn.Config) { c.Episodes = 5 })},
		{Name: "ErrUnknownField", Raw: `{"hiden": [4]}`, Msg: `json: unknown field "hiden"`},
		{Name: "ErrSyntax", Raw: `{"lr": }`, Msg: "invalid character"},
		{Name: "ErrType", Raw: `{"episodes": "many"}`, Msg: "cannot unmarshal"},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			got, err := dqn.DecodeConfig([]byte(tt.Raw), tt.Episodes)
			if tt.Msg != "" {
				var ce *dqn.ConfigError
				if !errors.Is(err, dqn.ErrConfig) || !errors.As(err, &ce) || !strings.Contains(err.Error(), tt.Msg) {
					t.Fatalf("err = %v\nwant a *ConfigError matching ErrConfig with the decoder's message %q", err, tt.Msg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.Want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.Want)
			}
		})
	}
}
