BoutputJ ÕlhAúŽAðBˆA±ñuAÚ[[A
RyA{ú†A®sA