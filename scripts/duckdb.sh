#!/usr/bin/env bash
# Runs SQL queries with DuckDB (an independent Parquet reader) through its
# Node.js package, installed once from the npm registry into a cache dir.
# Usage: scripts/duckdb.sh "SELECT count(*) FROM 'file.parquet'" [more queries...]
set -euo pipefail
cache=${MIRAGE_DUCKDB_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mirage-duckdb}
if [ ! -d "$cache/node_modules/@duckdb/node-api" ]; then
	command -v npm >/dev/null || { echo "duckdb.sh: npm (Node.js) is required" >&2; exit 1; }
	mkdir -p "$cache"
	(cd "$cache" && npm install --silent --no-audit --no-fund @duckdb/node-api@1.5.6-r.1 >/dev/null)
fi
cat >"$cache/q.mjs" <<'JS'
import { DuckDBInstance } from '@duckdb/node-api';
const con = await (await DuckDBInstance.create(':memory:')).connect();
for (const q of process.argv.slice(2)) {
  const r = await con.runAndReadAll(q);
  console.log(JSON.stringify(r.getRowObjectsJson()));
}
JS
exec node "$cache/q.mjs" "$@"
