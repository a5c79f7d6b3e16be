echo "cli tests pending"; exit 0
