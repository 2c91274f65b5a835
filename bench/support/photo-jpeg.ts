import jpeg from 'jpeg-js';

/**
 * A camera-sized JPEG (smooth gradients with sensor-like noise) so benchmarks sign files of a newsroom's real
 * size and not thumbnails: 4000x3000 at quality 90 is about the size of a 12 MP camera JPEG.
 */
export function photoLikeJpeg(width = 4000, height = 3000, quality = 90): Buffer {
  const data = Buffer.alloc(width * height * 4);
  let seed = 42;
  const noise = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return (seed % 25) - 12;
  };
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const i = (y * width + x) * 4;
      data[i] = Math.max(0, Math.min(255, Math.round((x / width) * 200 + 30 + noise())));
      data[i + 1] = Math.max(0, Math.min(255, Math.round((y / height) * 180 + 40 + noise())));
      data[i + 2] = Math.max(0, Math.min(255, Math.round(((x + y) / (width + height)) * 150 + 60 + noise())));
      data[i + 3] = 255;
    }
  }
  return jpeg.encode({ data, width, height }, quality).data;
}
