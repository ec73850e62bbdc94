    let pitch = PITCH;
    let gw = tc * TW + lid.x;
    for (var r = lid.y; r < TW * PACK; r += BY) {
        let gr = row0 + r;
        if gr < rows && gw < in_words {
            store_tile(((r % PACK) * TW + r / PACK) * PITCH + lid.x, load_src(in_base + gr * in_row + gw));
        }
    }
