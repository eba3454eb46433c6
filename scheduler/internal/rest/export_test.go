package rest

// FormatSize exports formatSize to the tests.
var FormatSize = formatSize
