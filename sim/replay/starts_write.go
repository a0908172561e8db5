package replay

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"

	"github.com/mirage-hpc/mirage/internal/atomicfile"
)

// StartRow is one job of starts.parquet, the file Starts writes: times
// in Unix seconds, 0 where the predictor gave none (ReplayStart 0 also
// for a job the replay never started).
type StartRow struct {
	JobID        string `parquet:"job_id"`
	Submit       int64  `parquet:"submit"`
	Start        int64  `parquet:"start"`
	SlurmEst     int64  `parquet:"est_slurm"`
	HistoryEst   int64  `parquet:"est_history"`
	RuntimeEst   int64  `parquet:"est_runtime_model"`
	ForecastEst  int64  `parquet:"est_forecast"`
	ReplayStart  int64  `parquet:"replay_start"`
	Nodes        int32  `parquet:"nodes"`
	TimelimitSec int64  `parquet:"timelimit_sec"`
}

// startsSchema is StartRow's schema under the root name the file has
// always had (parquet-go names it after the Go type, unexported before).
var startsSchema = parquet.NewSchema("startRow", parquet.SchemaOf(StartRow{}))

// writeStarts writes dir/starts.parquet (rows, zstd) and dir/starts.json
// (sum, indented), each atomically, creating dir if missing.
func writeStarts(dir string, sum StartsSummary, rows []StartRow) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("sim starts -o %s: %w", dir, err)
	}
	b, err := json.MarshalIndent(sum, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(dir, "starts.parquet"), func(w io.Writer) error {
		pw := parquet.NewGenericWriter[StartRow](w, startsSchema, parquet.Compression(&parquet.Zstd))
		if _, err := pw.Write(rows); err != nil {
			return err
		}
		return pw.Close()
	}); err != nil {
		return fmt.Errorf("starts.parquet: %w", err)
	}
	return atomicfile.WriteFile(filepath.Join(dir, "starts.json"), append(b, '\n'))
}

// ReadStarts reads a starts.parquet written by Starts.
func ReadStarts(path string) ([]StartRow, error) {
	rows, err := parquet.ReadFile[StartRow](path)
	if err != nil {
		return nil, fmt.Errorf("read starts %s: %w", path, err)
	}
	return rows, nil
}
