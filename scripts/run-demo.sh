#!/usr/bin/env bash
# Filled in by a later issue.
echo "run-demo: nothing yet"
