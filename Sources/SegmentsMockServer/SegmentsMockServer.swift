// The in-process mock segments backend. See README.md ("Mock server").
