package train

import "strconv"

func formatFloat(v float64) string         { return strconv.FormatFloat(v, 'g', -1, 64) }
func parseFloat(s string) (float64, error) { return strconv.ParseFloat(s, 64) }
