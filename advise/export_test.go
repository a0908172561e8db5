package advise

// For the benchmarks of package advise_test: a small trained run-time
// model and a fixture model whose features take its column.
var (
	MustRuntimeModel    = mustRuntimeModel
	RuntimeModelFixture = runtimeModelFixture
)
