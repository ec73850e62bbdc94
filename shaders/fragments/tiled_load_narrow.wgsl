    // Narrow rows end to end (one tile across, an odd row width as the pitch) read as one
    // run: every lane reads, every sector whole, both phases conflict-free.
    let narrow = param(TILES_C) == 1u && in_row == in_words && (in_words & 1u) == 1u;
    let pitch = select(PITCH, in_words, narrow);
    if narrow {
        let run = min(TW, rows - row0) * in_words;
        for (var l = li; l < run; l += TW * BY) {
            store_tile((l / in_words) * pitch + l % in_words, load_src(in_base + row0 * in_row + l));
        }
    } else {
        let gw = tc * TW + lid.x;
        for (var r = lid.y; r < TW; r += BY) {
            let gr = row0 + r;
            if gr < rows && gw < in_words {
                store_tile(r * PITCH + lid.x, load_src(in_base + gr * in_row + gw));
            }
        }
    }
