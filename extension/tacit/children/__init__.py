"""Child agents: commands, environment, prompts, the runner, launchers, fallbacks."""
